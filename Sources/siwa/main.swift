print("siwa")
