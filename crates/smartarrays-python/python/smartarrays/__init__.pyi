# Type stubs of the smartarrays package: everything comes from the native module.
from ._native import (
    SmartArray as SmartArray,
    SmartArrayIterator as SmartArrayIterator,
    SmartTable as SmartTable,
    __version__ as __version__,
    array as array,
    get_threads as get_threads,
    kernel_level as kernel_level,
    set_threads as set_threads,
    table as table,
    topology as topology,
    zeros as zeros,
)

__all__ = [
    "SmartArray",
    "SmartArrayIterator",
    "SmartTable",
    "__version__",
    "array",
    "get_threads",
    "kernel_level",
    "set_threads",
    "table",
    "topology",
    "zeros",
]
