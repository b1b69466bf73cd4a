"""``python -m boardzoo``: the same as the ``boardzoo`` command."""

import sys

from boardzoo.cli import main

sys.exit(main())
