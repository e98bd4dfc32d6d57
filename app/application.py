"""QApplication creation and the OpenGL set-up the 3D viewport needs.

Importing this module imports Qt; ``app.launcher`` imports it only when the GUI is started.
"""

from __future__ import annotations

import os
import sys

# pyvistaqt goes through qtpy: make it use the same binding as the rest of the application.
os.environ.setdefault("QT_API", "pyside6")

from PySide6.QtCore import QCoreApplication, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QOffscreenSurface, QOpenGLContext, QSurfaceFormat  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

APPLICATION_NAME = "Biela"
ORGANIZATION_NAME = "Biela"

#: Seconds a thread holds the interpreter lock before another waiting thread gets it.
GIL_SWITCH_INTERVAL = 0.0005

#: The OpenGL version VTK's shaders need (``#version 150``).
REQUIRED_GL_VERSION = (3, 2)


def default_surface_format() -> QSurfaceFormat:
    """Desktop OpenGL 3.2 core profile, 8-bit RGBA: the context the VTK viewport renders in."""
    fmt = QSurfaceFormat()
    fmt.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
    fmt.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    fmt.setVersion(*REQUIRED_GL_VERSION)
    fmt.setSwapBehavior(QSurfaceFormat.SwapBehavior.DoubleBuffer)
    fmt.setRedBufferSize(8)
    fmt.setGreenBufferSize(8)
    fmt.setBlueBufferSize(8)
    fmt.setAlphaBufferSize(8)
    fmt.setDepthBufferSize(24)
    fmt.setStencilBufferSize(0)
    fmt.setSamples(0)  # anti-aliasing happens in VTK's framebuffers, not in Qt's context
    return fmt


def get_application(argv: list[str] | None = None) -> QApplication:
    """Return the running QApplication, creating and configuring it if there is none.

    The default OpenGL surface format must be set before the first top-level window is created,
    and context sharing before the QApplication exists; both are done here.
    """
    app = QApplication.instance()
    if app is not None:
        return app  # type: ignore[return-value]
    QSurfaceFormat.setDefaultFormat(default_surface_format())
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    QCoreApplication.setApplicationName(APPLICATION_NAME)
    QCoreApplication.setOrganizationName(ORGANIZATION_NAME)
    app = QApplication([sys.argv[0] if sys.argv else "biela", *(argv or [])])
    # The solver runs in a Python thread: with the default 5 ms switch interval, every
    # return of the GUI thread from Qt or VTK waits up to 5 ms for the interpreter lock, and
    # a click costs hundreds of them. 0.5 ms keeps the GUI responsive during a run; the
    # solver only pays when the GUI thread actually has work.
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    return app


def opengl_problem() -> str | None:
    """Why an OpenGL context for the 3D viewport cannot be had here, or None when it can.

    Creating the VTK widget without a usable context does not fail cleanly (it renders nothing
    or aborts later), so the main window asks first and shows an explanation instead.
    Needs a QApplication.
    """
    context = QOpenGLContext()
    context.setFormat(QSurfaceFormat.defaultFormat())
    if not context.create():
        platform = QGuiApplication.platformName()
        hint = (
            ' (the "offscreen" platform has none without an X server)'
            if platform == "offscreen"
            else ""
        )
        return (
            f'Qt (platform "{platform}") could not create an OpenGL context{hint}. The 3D '
            "viewport needs an X server or Wayland session with OpenGL, for example Xvfb with "
            "Mesa."
        )
    surface = QOffscreenSurface()
    surface.setFormat(context.format())
    surface.create()
    try:
        if not surface.isValid() or not context.makeCurrent(surface):
            return "Qt created an OpenGL context but could not make it current."
        fmt = context.format()
        version = (fmt.majorVersion(), fmt.minorVersion())
        if context.isOpenGLES():
            return "Only OpenGL ES is available; the 3D viewport needs desktop OpenGL 3.2."
        if version < REQUIRED_GL_VERSION:
            return (
                f"OpenGL {version[0]}.{version[1]} is available; "
                "the 3D viewport needs OpenGL 3.2 or newer."
            )
        context.doneCurrent()
        return None
    finally:
        surface.destroy()
