"""``python -m ptoc ...``: the ``ptoc`` command line (``ptoc --help``), run in this process."""

import sys

from ptoc import _ptoc


def main() -> None:
    """Run the command line on ``sys.argv`` and exit with its status."""
    # The command line writes to the process's standard streams directly.
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(_ptoc.main(["ptoc", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
