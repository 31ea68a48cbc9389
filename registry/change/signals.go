package change

func (d *differ) metrics() {}

func (d *differ) groups() {}
