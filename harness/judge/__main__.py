"""`python -m harness.judge RESULT_FOLDER`: judge an upstream result folder offline; `python -m harness.judge
session FOLDER` / `intents FOLDER --sessions FILE`: judge recorded sessions whole, audit their intents."""

import sys

from harness.judge.cli import main

if __name__ == "__main__":
    sys.exit(main())
