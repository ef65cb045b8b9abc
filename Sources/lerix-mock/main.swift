print("lerix-mock: under construction")
