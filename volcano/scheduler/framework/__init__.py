"""The scheduling framework: session model (``model``), resource vectors (``resources``),
the extension-point catalogue (``points``), plugin base and registry (``plugin``), the
configuration types (``conf``), ``Session``, ``Statement``, node selection (``select``) and
session-close status (``status``). Import from the submodules."""
