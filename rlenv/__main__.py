"""``python -m rlenv`` runs the CLI."""

import sys

from rlenv.cli import main

sys.exit(main())
