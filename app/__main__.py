from tabletrail.cli import run

run()
