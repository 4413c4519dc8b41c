"""Reading one image file, for `identify` (a photo of a card) and `read-table` (a camera frame):
its pixels as BGR, or an error that says what is wrong with the file and what to do.

Both commands read through here so that one file gets one answer. A truncated file is refused:
libjpeg would fill the missing part of a JPEG with grey and only warn on stderr, and a referee
that read zones from pixels the camera never sent could report a card, or an empty pile, that
is not there. The file is decoded from memory (`cv2.imdecode`), which refuses a JPEG that ends
early where `cv2.imread` pads it, and which also reads paths that are not ASCII.
"""
from __future__ import annotations

import stat
from pathlib import Path

import cv2
import numpy as np

from referee.errors import UserError

_JPEG_START, _JPEG_END = b"\xff\xd8", b"\xff\xd9"
_PNG_START, _PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND"
_PNG_END_CHUNK = 12  # the last chunk: length (4 bytes), "IEND", CRC (4 bytes)


class ImageFileError(UserError):
    """An image file that is missing, empty, truncated or not an image; `problem` says which
    in a few words ("is truncated"), for a caller that lists several files."""

    def __init__(self, path: Path, problem: str, advice: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path} {problem}; {advice}")


def load_image(path: str | Path, what: str = "photo") -> np.ndarray:
    """Read an image file as BGR or raise ImageFileError saying what is wrong; `what` names
    the picture in the advice ("photo", "camera frame")."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise ImageFileError(p, "does not exist",
                             f"give the path of a {what} (JPEG or PNG)") from None
    except OSError as exc:
        raise ImageFileError(p, f"cannot be read ({exc.strerror})", "check the path") from None
    if stat.S_ISDIR(st.st_mode):
        raise ImageFileError(p, "is a folder", f"give the path of one {what}")
    if not stat.S_ISREG(st.st_mode):
        raise ImageFileError(p, "is not a regular file", f"give the path of a {what} (JPEG or PNG)")
    if st.st_size == 0:
        raise ImageFileError(p, "is empty (0 bytes)", f"take the {what} again")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        raise ImageFileError(p, f"cannot be read ({exc.strerror})", "check the file") from None
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        if is_truncated(data.tobytes()):
            raise ImageFileError(p, "is truncated (the file ends before the image does)",
                                 f"copy it again, or take the {what} again")
        raise ImageFileError(p, "is not an image OpenCV can read", "save it as JPEG or PNG")
    return img


def is_truncated(data: bytes) -> bool:
    """Whether `data` begins as a JPEG or PNG file but lacks the marker that ends one."""
    if data.startswith(_JPEG_START):
        return not data.rstrip(b"\x00").endswith(_JPEG_END)
    if data.startswith(_PNG_START):
        return _PNG_END not in data[-_PNG_END_CHUNK:]
    return False
