"""Building mechanisms by point-and-click: undoable edits, palette, picking, joint tool,
property editor, live check and generators. ``install_build(window)`` wires them into the
main window."""
