"""Workbooks (XLSX, XLSM, ODS, XLS) read as sheets of cells: the columnar reader, the careful one, their rules."""
