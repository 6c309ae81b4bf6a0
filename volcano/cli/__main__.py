"""``python -m volcano.cli``: the ``volcano`` command (see ``volcano.cli``)."""

import sys

from volcano.cli import main

sys.exit(main())
