"""The term families (categories, tags, shipping classes, attribute terms) and the global
attributes: ``test_common.py`` runs what they share over all of them; one file each for the rest."""
