from onceflow.store.db import Database

__all__ = ["Database"]
