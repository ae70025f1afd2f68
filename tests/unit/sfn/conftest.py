"""The sfn unit tests share a helper module that lives beside them (import mode is importlib)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
