"""The `kg` command line (typer). Each area registers its commands from its own module."""
