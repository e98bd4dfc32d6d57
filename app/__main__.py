"""``python -m app``: the same as the ``biela`` command."""

from app.launcher import main

if __name__ == "__main__":
    raise SystemExit(main())
