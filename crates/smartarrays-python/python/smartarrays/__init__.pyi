# Type stubs of the smartarrays package: everything comes from the native module.
from ._native import (
    Column as Column,
    SmartArray as SmartArray,
    SmartArrayIterator as SmartArrayIterator,
    SmartTable as SmartTable,
    __version__ as __version__,
    array as array,
    column as column,
    get_threads as get_threads,
    kernel_level as kernel_level,
    set_threads as set_threads,
    table as table,
    topology as topology,
    zeros as zeros,
)

__all__ = [
    "Column",
    "SmartArray",
    "SmartArrayIterator",
    "SmartTable",
    "__version__",
    "array",
    "column",
    "get_threads",
    "kernel_level",
    "set_threads",
    "table",
    "topology",
    "zeros",
]
