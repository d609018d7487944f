import ListStore
