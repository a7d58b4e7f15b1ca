"""`python -m tabular.cli`: the `tabular` command."""

import sys

from . import main

sys.exit(main())
