"""Adapters that plug rlenv environments into other trainers: :mod:`~rlenv.integrations.trl` (TRL's
``GRPOTrainer``/``RLOOTrainer`` reward functions and datasets) and :mod:`~rlenv.integrations.verl`
(verl's ``compute_score`` and dataset rows). Importing them never imports torch."""
