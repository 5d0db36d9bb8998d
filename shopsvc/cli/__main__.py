"""``python -m shopsvc.cli CONFIG COMMAND``: the same as the ``shopsvc`` console script."""

import sys

from shopsvc.cli.main import main

sys.exit(main())
