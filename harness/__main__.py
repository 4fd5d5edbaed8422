"""``python -m harness``: the harness command line (see harness/run/cli.py)."""

import sys

from harness.run import main

sys.exit(main())
