print("gbgbridge-shell")
