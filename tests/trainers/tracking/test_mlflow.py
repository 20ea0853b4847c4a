from tests.trainers.tracking.tracking_helpers import run_cases_in_tracking_environment


def test_mlflow_cases_pass_in_the_tracking_environment():
    """``mlflow_cases.py``: a real training run read back with ``MlflowClient``, and the error naming the
    extra (see :func:`run_cases_in_tracking_environment` for why another environment)."""
    run_cases_in_tracking_environment("mlflow_cases.py")
