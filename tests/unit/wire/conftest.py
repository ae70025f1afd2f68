"""The wire unit tests share two helper modules that live beside them (import mode is importlib)."""

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).parent))  # after tests/, whose conftest others import
