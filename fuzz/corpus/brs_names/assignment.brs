  m.onItemSelected = Function (index as integer)
