"""The battle turn, one module per step, in the order they run (docs/architecture.md).

``orders`` -> ``movement`` (with ``ftl``) -> ``fighters`` -> ``ordnance`` -> ``fire`` ->
``boarding`` -> ``end`` -> ``repair`` -> ``core``. Each module owns its checks, its events and
its fold; ``damage`` holds the damage and threshold checks every phase that deals damage
applies. A phase imports the rule families, :mod:`tactical.state`, ``damage`` and the public
entry points of the steps it hands over to, never another phase's private names.
"""
