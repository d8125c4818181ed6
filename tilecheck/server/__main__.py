"""`python -m tilecheck.server`: the same as `tilecheck server`."""

import sys

from tilecheck.__main__ import isolate

isolate()  # before anything else is imported: see there

from tilecheck.server import main  # noqa: E402

sys.exit(main())
