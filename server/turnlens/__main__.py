from turnlens.cli import entry

entry()
