    "on-select": sub() ' key
