"""The audit engine: plan the tools (`plan`), run the hook suites per tool (`hooks`), gate, run and grade the
compliance catalog (`compliance`), assemble the Report (`audit.run_audit`), and tell a listener what happens
while it does (`events`).

Nothing is imported here: `hookconf.engine.audit` alone never loads the compliance catalog.
"""
