"""`python -m kscope.cli ARGS`: the same as the `kscope` console script."""

from kscope.cli import main

raise SystemExit(main())
