import tabular, time, cProfile, pstats
from pathlib import Path
from tabular import extract, infer, cast
from tabular.settings import Settings
e = tabular.connect(":memory:")
s=Settings(); cur=e.catalog.cursor()
ex=extract.read_delimited(Path("/tmp/wide.csv"), Path("/tmp/x.parquet"), "x", {}, s)
rel=cast.parquet_relation("/tmp/x.parquet")
cProfile.run("infer.infer_columns(cur, rel, ex.cell_columns[:250], ex.rows, s)", "/tmp/p5")
pstats.Stats("/tmp/p5").sort_stats("cumulative").print_stats(12)
