import sys

from memlsp.cli import main

sys.exit(main())
