"""Helpers of the hostile-input suite (``tests/test_hostile.py``): see ``tests.hostile.support``."""
