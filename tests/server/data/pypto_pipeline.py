import pypto.language as pl


@pl.function
def f(a, b, n, s, s0, t0, out):
    for i in pl.pipeline(0, 2, 1, stage=2):
        x = i
