"""`python -m tilecheck.server`: the same as `tilecheck server`."""

import sys

from tilecheck.server import main

sys.exit(main())
