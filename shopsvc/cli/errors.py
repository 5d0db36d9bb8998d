"""The two ways a command fails before it does anything (exit status 2)."""


class UsageError(Exception):
    """A command's arguments cannot be carried out (exit status 2)."""


class SetupError(Exception):
    """The ini, a setting or the database cannot be used (exit status 2)."""
