"""`python -m sim.cli ...`: the same as `dfsim ...`."""

from sim.cli.main import main

raise SystemExit(main())
