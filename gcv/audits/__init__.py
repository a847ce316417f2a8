"""The papers' audits as commands: ``gcv audit lineage`` and ``gcv audit gossip``."""
