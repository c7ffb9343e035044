"""``python -m bayescm``: the command line."""

from bayescm.cli import main

raise SystemExit(main())
