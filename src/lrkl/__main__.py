"""``python -m lrkl``: the ``lrkl`` console command."""

import sys

from lrkl._cli import main

sys.exit(main())
