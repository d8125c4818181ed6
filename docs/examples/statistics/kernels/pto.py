import pypto.language as pl


@pl.function
def f(self, a: pl.Tensor, out: pl.Tensor):
    for i in pl.pipeline(0, 8, 1, stage=2):
        t = pl.tile.load(a, [i * 16], [16])
        for j in pl.range(2):
            pl.tile.store(t, [j], out)


@pl.function
def g(self, a: pl.Tensor):
    for i in range(3):
        pass
