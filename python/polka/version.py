"""The package's version: that of the polka it comes with (CMakeLists.txt's project VERSION)."""
__version__ = "0.1.0"
