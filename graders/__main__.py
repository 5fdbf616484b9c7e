from graders.cli import run

run()
