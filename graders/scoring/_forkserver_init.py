"""Imported only by the forkserver that scores large files beside a threaded host.

A process forked by a forkserver first re-runs the parent's main module, as a spawned one
does. Inside Streamlit the parent's ``__main__`` is the page script being run, so each
scoring worker would run the page again. This module is in the forkserver's preload
list (``graders.scoring.batch._PRELOAD``); importing it in that server turns the main-module step
off for the server and the workers it forks, and nowhere else: the scoring workers need
nothing from ``__main__`` (their task and its arguments live in ``graders``). The
forkserver is one per process: other code using it from the same process gets workers
that do not import ``__main__`` either.
"""

from multiprocessing import spawn


def _skip_main(*_args: object) -> None:
    return None


spawn._fixup_main_from_path = _skip_main
spawn._fixup_main_from_name = _skip_main
