"""PyPTO support: the DSL model, the LowerPipelineLoops lowering and its pre-lowering checks."""

from tilecheck.pypto.api import LowerResult, check_module, check_pypto_source, lower_source

__all__ = ["LowerResult", "check_module", "check_pypto_source", "lower_source"]
