"""``python3 -m sim.cli``: the ``cepsim`` command."""
from sim.cli.main import main

if __name__ == "__main__":
    main()
