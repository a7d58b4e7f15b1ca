import tabular, time, sys
from pathlib import Path
from tabular import extract, infer, cast
from tabular.settings import Settings
import tabular.candidates as C
e = tabular.connect(":memory:")
s=Settings()
cur=e.catalog.cursor()
f=sys.argv[1]
t=time.time()
ex=extract.read_delimited(Path(f), Path("/tmp/x.parquet"), "x", {}, s)
t1=time.time(); print("extract", t1-t, ex.width, ex.rows)
rel=cast.parquet_relation("/tmp/x.parquet")
sy=infer._symbols(cur, rel, ex.cell_columns); t2=time.time(); print("symbols", t2-t1)
fam=infer._families(cur, rel, ex.cell_columns, s.null_markers, 0.8); t3=time.time(); print("families", t3-t2)
readings={c: [r for r in C.candidate_readings(sy[c]) if r.type in fam[c]] for c in ex.cell_columns}
print(sum(len(v) for v in readings.values()))
tal=infer._tally(cur, rel, ex.cell_columns, readings, s.null_markers); t4=time.time(); print("tally", t4-t3)
ty=infer.infer_columns(cur, rel, ex.cell_columns, ex.rows, s); print("infer", time.time()-t4)
