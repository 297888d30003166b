"""The package's errors: each carries one clear message, as polka's own do."""


class PolkaError(Exception):
    """Base of every error the package raises."""


class RunFileError(PolkaError):
    """A file that is not a run file this package reads: missing, not HDF5, a checkpoint,
    another HDF5 file, damaged, or written by a polka without the parts it needs."""


class RunFailed(PolkaError):
    """`polka run` ended without a run file: str() is polka's own message.

    Attributes: command (the argument list), returncode, stdout, stderr."""

    def __init__(self, message, command, returncode, stdout, stderr):
        super().__init__(message)
        self.command, self.returncode = command, returncode
        self.stdout, self.stderr = stdout, stderr


class RunFileVersionWarning(UserWarning):
    """A run file read although another polka version wrote it: parts this package knows are
    missing (an older polka), or parts it does not know are there (a newer one)."""
