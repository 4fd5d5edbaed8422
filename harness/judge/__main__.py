"""`python -m harness.judge RESULT_FOLDER`: judge an upstream result folder offline."""

import sys

from harness.judge.cli import main

if __name__ == "__main__":
    sys.exit(main())
