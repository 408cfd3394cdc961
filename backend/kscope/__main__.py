"""`python -m kscope ARGS`: the same as the `kscope` console script."""

from kscope.cli import main

raise SystemExit(main())
