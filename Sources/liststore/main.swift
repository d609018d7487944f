print("liststore")
