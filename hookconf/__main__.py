from hookconf.cli import run

run()
