"""``python -m bayescm``: the command line."""

from .cli import main

raise SystemExit(main())
