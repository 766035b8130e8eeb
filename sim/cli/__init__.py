"""The command line: argparse only, one module per command group (`sim.cli.main` builds the parser)."""
