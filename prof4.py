import duckdb, time
from tabular import infer, cast
import tabular.candidates as C
from tabular.settings import Settings
from sqlglot import exp
con=duckdb.connect()
rel=cast.parquet_relation("/tmp/x.parquet")
cols=[f"c{i}" for i in range(1,127)]
m=Settings().null_markers
for name,pat in C.FAMILIES.items():
    t=time.time()
    sel=[f"count(*) FILTER (WHERE {infer._sql(exp.column('t_'+c, quoted=True))} IS NOT NULL AND NOT {infer._sql(C.matches(exp.column('t_'+c, quoted=True), pat))})" for c in cols[:30]]
    con.execute(f"SELECT {', '.join(sel)} FROM {infer._texts(rel, cols, m)}").fetchone()
    print(name, time.time()-t)
t=time.time()
con.execute(f"SELECT count(*) FROM {infer._texts(rel, cols, m)}").fetchone(); print("texts only", time.time()-t)
t=time.time()
con.execute(f"CREATE TEMP TABLE tt AS SELECT * FROM {infer._texts(rel, cols, m)}"); print("materialize", time.time()-t)
for name,pat in C.FAMILIES.items():
    t=time.time()
    sel=[f"count(*) FILTER (WHERE {infer._sql(exp.column('t_'+c, quoted=True))} IS NOT NULL AND NOT {infer._sql(C.matches(exp.column('t_'+c, quoted=True), pat))})" for c in cols[:30]]
    con.execute(f"SELECT {', '.join(sel)} FROM tt").fetchone()
    print(name, time.time()-t)
