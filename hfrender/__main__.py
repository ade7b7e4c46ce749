import sys

from hfrender.cli import main

sys.exit(main())
